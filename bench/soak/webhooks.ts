// The consent events the app's endpoint (the soak's receiver) got, each read as it arrives: its
// signature is checked then, not later (standardwebhooks refuses a timestamp over 5 minutes old).
import { verifyWebhook, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import type { Delivery } from './history.ts';

export function consentDeliveries(receiver: WebhookReceiver, signingSecret: string, clientId: string) {
  const deliveries: Delivery[] = [];
  receiver.behave((response, received) => {
    response.writeHead(204).end();
    let signatureValid = true;
    try {
      verifyWebhook(signingSecret, received);
    } catch {
      signatureValid = false;
    }
    let body: { type?: string; data?: { consent_id?: string; app?: string } } = {};
    try {
      body = JSON.parse(received.body);
    } catch {
      // not JSON: it names no consent
    }
    if (body.data?.app !== clientId) return;
    deliveries.push({
      webhookId: received.headers['webhook-id'] ?? '',
      type: body.type ?? '',
      consentId: body.data.consent_id ?? '',
      signatureValid,
    });
  });
  return deliveries;
}
