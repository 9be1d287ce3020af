// Shapes of the developer console's JSON API that more than one package reads: the console writes
// them, the devplat CLI reads them.

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** The console's JSON view of a delivery. */
export interface DeliveryView {
  delivery_id: string;
  event_id: string;
  event_type: string;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  /** null once final (succeeded or failed). */
  next_attempt_at: string | null;
  delivered_at: string | null;
  replay_of: string | null;
  test: boolean;
}
