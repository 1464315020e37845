// The verification process: issuing and checking a subscriber's one-time code (verification_codes),
// which opens a verified session (the verified-sessions owner).
export { createVerificationService } from './verification.service.js';
