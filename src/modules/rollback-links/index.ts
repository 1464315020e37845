// The rollback-links owner: the one-time links of change-confirmation mails. A plan change or a
// contact edit creates its link and mail inside its own transaction (confirmPlanChange,
// confirmContactChange); the rollback module consumes them. Other modules import only this file.
export { confirmContactChange, confirmPlanChange, contactNoticeAddress } from './rollback-links.confirm.js';
export * from './rollback-links.repository.js';
