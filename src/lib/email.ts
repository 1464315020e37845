import { z } from 'zod';

// What `format: email` means to a JSON Schema validator (RFC 5321 addresses, every domain label
// starting and ending with a letter or digit), so a client that validates by the document and the
// server agree (issue 30 §5). zod's own email check lets a label end in a hyphen: `erika@example-.com`.
const EMAIL = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_'+\-.]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** An email address as the documents declare it (`format: email` and this pattern). */
export const emailAddress = () => z.email({ pattern: EMAIL, message: 'must be a valid email address' });
