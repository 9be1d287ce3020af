// A real OTLP/HTTP receiver standing in for the collector: POST /v1/traces with the JSON encoding
// (gzip or not), every body kept as it arrived and its spans decoded.
import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export type AttributeMap = Record<string, string | number | boolean>;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  attributes: AttributeMap;
}

export const spanKind = { internal: 1, server: 2, client: 3 } as const;

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  status?: { code?: number };
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function plainValue(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

const attributeMap = (attributes: OtlpAttribute[] = []): AttributeMap =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, plainValue(value)]));

function spansOf(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap(({ resource, scopeSpans = [] }) => {
    const service = String(attributeMap(resource?.attributes)['service.name']);
    return scopeSpans.flatMap(({ spans = [] }) =>
      spans.map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        status: span.status?.code ?? 0,
        attributes: attributeMap(span.attributes),
      })),
    );
  });
}

export interface OtlpReceiver {
  /** The base URL: what OTEL_EXPORTER_OTLP_ENDPOINT is set to. */
  url: string;
  /** Every request's body as received (decompressed), in order. */
  bodies: string[];
  /** Every request's headers. */
  headers: IncomingHttpHeaders[];
  /** Requests to anything but POST /v1/traces. */
  strays: string[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const strays: string[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      strays.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
      return;
    }
    const raw = Buffer.concat(chunks);
    const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    bodies.push(body.toString('utf8'));
    headers.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    headers,
    strays,
    spans: () => bodies.flatMap((body) => spansOf(JSON.parse(body) as OtlpExport)),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
