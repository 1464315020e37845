import type { Clock } from '../lib/clock.js';
import { createFaults, simulateCall, type SimFaultControl } from './faults.js';
import { AdapterError, type SmsGateway } from './types.js';

interface SentSms {
  to: string;
  text: string;
  sent_at: Date;
}

export interface SmsGatewaySimulator extends SmsGateway {
  readonly faults: SimFaultControl;
  /** Every message the gateway accepted, oldest first (tests read codes from here). */
  readonly sent: SentSms[];
}

const E164 = /^\+[1-9]\d{6,14}$/;

/** The SMS gateway simulator: accepted messages are recorded in memory, nothing leaves the process. */
export function createSmsSimulator({ clock, timeoutMs }: { clock: Clock; timeoutMs?: number }): SmsGatewaySimulator {
  const faults = createFaults(timeoutMs);
  const sent: SentSms[] = [];
  return {
    faults: faults.control,
    sent,
    send(req) {
      return simulateCall('sms', faults, async () => {
        if (typeof req?.to !== 'string' || !E164.test(req.to))
          throw new AdapterError('sms', 'failed', 'destination must be an E.164 number like +4930123456');
        if (typeof req.text !== 'string' || req.text.length === 0 || req.text.length > 1600) {
          throw new AdapterError('sms', 'failed', 'text must be 1 to 1600 characters');
        }
        sent.push({ to: req.to, text: req.text, sent_at: clock.now() });
      });
    },
  };
}
