export { startWebhookWorker, type WebhookWorker, type WebhookWorkerDeps } from './worker.ts';
