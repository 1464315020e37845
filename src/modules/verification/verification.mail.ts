import { mailBrand, verificationCodeMail, VERIFICATION_CODE_MINUTES } from '../../mail/templates.js';

/** The one-time code as a mail (the shared template) and as an SMS text. */
export function oneTimeCodeMessage(i: {
  provider: { name: string; support_email: string; branding: unknown };
  customer: { first_name: string };
  code: string;
  baseUrl: string;
}) {
  const brand = mailBrand(i.provider);
  const mail = verificationCodeMail({ brand, baseUrl: i.baseUrl }, { firstName: i.customer.first_name, code: i.code });
  const sms = `${brand.name}: your verification code is ${i.code}. It is valid for ${VERIFICATION_CODE_MINUTES} minutes. Do not share it with anyone else.`;
  return { mail, sms };
}
