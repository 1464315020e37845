// The subscribers owner: subscriber rows (contact, card, login link) and the provider-scoped reads
// every /agent route starts from. The services of the /agent reads, search and changes and of the
// subscriber's self-service; the operations other modules run inside their transactions.
export { createSubscriberService } from './account.service.js';
export { createSubscriberReadService } from './profile.service.js';
export { createSubscriberSearchService } from './search.service.js';
export { searchWarmUp } from './search.repository.js';
export { createSubscriberChangeService } from './subscriber-changes.service.js';
export { createSubscriberOwnershipService } from './ownership.service.js';
export { createInvoiceCopyService } from './invoice-copy.service.js';
export { createBillingDayService } from './billing-day.service.js';
export { createCreditNoteService } from './credit-notes.service.js';
export { createPaymentMethodService } from './payment-method.service.js';
export { createSubscriberPasswordService } from './subscriber-password.service.js';
export { subscriberNotFound } from './subscriber.errors.js';
export { findOwnedSubscriber, findSubscriberIdByEmail, lockOwnedSubscriber, ownedWithSessionSql } from './profile.repository.js';
export { findSubscriberByCardSetup, findSubscriberByEmail, saveCard } from './account.repository.js';
export { isContactColumn, readContactColumns, writeContactColumns } from './contact.repository.js';
export {
  insertNewSubscriber,
  insertSubscriberIfAbsent,
  insertUserIfAbsent,
  isNewSubscriberConflict,
  newSubscriberWrites,
} from './new-subscriber.repository.js';
export type { OwnedSource, Profile, SubscriberOwnershipService } from './ownership.service.js';
export {
  BillingDayBody,
  BillingDayResponse,
  ConfirmBody,
  CreditNoteItem,
  DetailsResponse,
  InvoiceItem,
  MeResponse,
  PasswordBody,
  PasswordResponse,
  PaymentMethodResponse,
  SetupResponse,
  StatusHistoryResponse,
  UsageResponse,
} from './subscriber.schemas.js';
