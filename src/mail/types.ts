import type { Executor } from '../db/executor.js';

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: MailAttachment[];
  /** Shown in logs instead of the body (bodies may hold codes and links). */
  tag: string;
}

export interface Mailer {
  /** Sends now (SMTP, or a file in the outbox folder). */
  send(msg: MailMessage): Promise<void>;
  /** Durable: a `mail.send` job in the caller's transaction, sent by the worker. */
  enqueue(executor: Executor, msg: Omit<MailMessage, 'attachments'>): Promise<void>;
  close(): Promise<void>;
}
