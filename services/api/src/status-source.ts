// The public status source: an Atlassian Statuspage v2 summary.json, read with a short timeout,
// cached briefly, and mapped onto the contract's PlatformStatus. Any failure (refused, slow,
// non-2xx, oversized, bad JSON, unexpected shape) yields null: /status never fails because of it.
import type { PlatformStatusValue } from '@devplat/contract';
import { keptValue } from './kept-value.ts';

export interface PlatformStatus {
  overall: PlatformStatusValue;
  updated_at: string;
  components: { code: string; status: PlatformStatusValue }[];
}

export interface StatusSource {
  current(): Promise<PlatformStatus | null>;
}

export interface StatusSourceOptions {
  timeoutMs?: number;
  /** How long a good answer is reused. */
  ttlMs?: number;
  /** How long a failure is remembered before the source is asked again. */
  failureTtlMs?: number;
  maxBytes?: number;
}

const indicators: Record<string, PlatformStatusValue> = {
  none: 'OPERATIONAL',
  minor: 'DEGRADED',
  major: 'PARTIAL_OUTAGE',
  critical: 'MAJOR_OUTAGE',
  maintenance: 'MAINTENANCE',
};

const componentStates: Record<string, PlatformStatusValue> = {
  operational: 'OPERATIONAL',
  degraded_performance: 'DEGRADED',
  partial_outage: 'PARTIAL_OUTAGE',
  major_outage: 'MAJOR_OUTAGE',
  under_maintenance: 'MAINTENANCE',
};

const notIntegrated: StatusSource = { current: async () => null };

export function createStatusSource(url: URL | null, options: StatusSourceOptions = {}): StatusSource {
  if (url === null) return notIntegrated;
  const { timeoutMs = 800, ttlMs = 15_000, failureTtlMs = 5_000, maxBytes = 1024 * 1024 } = options;
  const current = keptValue(
    () => fetchSummary(url, timeoutMs, maxBytes).then(parseSummary, () => null),
    (value) => (value ? ttlMs : failureTtlMs),
  );
  return { current };
}

async function fetchSummary(url: URL, timeoutMs: number, maxBytes: number): Promise<unknown> {
  const signal = AbortSignal.timeout(timeoutMs);
  const response = await fetch(url, { signal, redirect: 'error', headers: { accept: 'application/json' } });
  if (!response.ok || !response.body) throw new Error(`status source answered ${response.status}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new Error('status source answer too large');
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Maps a Statuspage v2 summary onto PlatformStatus; null when the shape is not one. */
export function parseSummary(summary: unknown): PlatformStatus | null {
  const s = summary as {
    page?: { updated_at?: unknown };
    status?: { indicator?: unknown };
    components?: unknown;
  } | null;
  const indicator = s?.status?.indicator;
  const updatedAt = s?.page?.updated_at;
  if (typeof indicator !== 'string' || typeof updatedAt !== 'string' || !Array.isArray(s?.components)) return null;
  const components: PlatformStatus['components'] = [];
  const seen = new Set<string>();
  for (const component of s.components as { name?: unknown; status?: unknown; group?: unknown }[]) {
    if (typeof component !== 'object' || component === null) return null;
    if (typeof component.name !== 'string' || typeof component.status !== 'string') return null;
    if (component.group === true) continue; // a group only aggregates the components listed with it
    const code = componentCode(component.name);
    if (code === '' || seen.has(code)) continue;
    seen.add(code);
    components.push({ code, status: componentStates[component.status] ?? 'UNKNOWN' });
  }
  return { overall: indicators[indicator] ?? 'UNKNOWN', updated_at: updatedAt, components };
}

/** "API Gateway" → "api_gateway". */
function componentCode(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}
