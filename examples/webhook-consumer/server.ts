/**
 * A Joma webhook consumer: verify, dedupe, acknowledge fast, work later.
 *
 *   JOMA_WEBHOOK_SECRET=whsec_... npx ts-node examples/webhook-consumer/server.ts
 *
 * then register http(s)://<this host>:4000/joma/webhooks as an endpoint.
 * In your project import from '@joma/client' instead of the relative path.
 */
import express, { type Express } from 'express';

import {
  verifyWebhook,
  WebhookDeduper,
  type WebhookEvent,
  WebhookVerificationError,
} from '../../clients/typescript/src';

/** Any Joma event, typed by its `type` (its `id` is a number, the delivery's). */
export type JomaEvent = WebhookEvent;

export function webhookConsumer(
  secret: string,
  handle: (event: JomaEvent) => Promise<void>,
  dedupe = new WebhookDeduper(),
): Express {
  const app = express();
  // The raw bytes: the signature is over them, not over re-serialized JSON.
  app.post(
    '/joma/webhooks',
    express.raw({ type: 'application/json', limit: '1mb' }),
    (req, res) => {
      let verified;
      try {
        verified = verifyWebhook(req.body as Buffer, req.headers, secret);
      } catch (err) {
        if (err instanceof WebhookVerificationError) return res.status(400).send(err.message);
        throw err;
      }
      // A retried delivery has the same X-Webhook-Id: acknowledge it, do not process it twice.
      const first = dedupe.firstTime(verified.id);
      res.status(200).send('ok'); // answer within Joma's timeout; do the work afterwards
      if (first)
        setImmediate(() =>
          handle(verified.event).catch((err) => console.error('webhook handling failed', err)),
        );
    },
  );
  return app;
}

if (require.main === module) {
  const secret = process.env.JOMA_WEBHOOK_SECRET;
  if (!secret)
    throw new Error('Set JOMA_WEBHOOK_SECRET to the endpoint signing secret (whsec_...)');
  const port = Number(process.env.PORT ?? 4000);
  webhookConsumer(secret, async (event) => {
    // `event.type` narrows `event.data`: here an invoice.paid's amounts are numbers.
    if (event.type === 'invoice.paid')
      console.log(`invoice ${event.data.invoice_id} paid: ${event.data.amount_paid_minor} poisha`);
    else console.log(`${event.type} ${JSON.stringify(event.data)}`);
  }).listen(port, () => console.log(`listening on http://localhost:${port}/joma/webhooks`));
}
