// The events room: the consent events an app is told of (outbox_events) and each delivery of one to
// the app's webhook URL (webhook_deliveries). The consents room writes events with each consent
// change; the worker enqueues, claims and records deliveries; the console lists, replays and sends
// test events (workflows); the janitor deletes finished ones. Only store.ts touches the two tables.
export { listDeliveries, replayDelivery } from './deliveries.ts';
export type { EventFeed } from './feed.ts';
export {
  type AttemptRecord,
  type ClaimedDelivery,
  claimDueDeliveries,
  countFinishedDeliveries,
  countFinishedEvents,
  deleteFinishedDeliveries,
  deleteFinishedEvents,
  deliveriesPerDay,
  enqueueEvents,
  eventsOfAppSince,
  eventTimeOfApp,
  oldestUndeliveredAgeSeconds,
  outboxBacklog,
  recordAttempt,
} from './store.ts';
