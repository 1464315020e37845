import type { Deps } from '../container.js';

export function registerWebhookJobs(_deps: Deps) {}
