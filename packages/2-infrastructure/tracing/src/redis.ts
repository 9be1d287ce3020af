// CLIENT spans for the commands of an ioredis client, which has no hook of its own: its
// sendCommand, through which every command passes (pipelines and MULTI included), is wrapped on
// this one client. A span carries the command's name only; never a key, an argument or a reply.
// Only commands sent inside a traced operation get one (see recordedParent).
import { SpanKind } from '@opentelemetry/api';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import type { Cluster, Redis } from 'ioredis';
import { errorType, sanitize } from './attributes.ts';
import { type Core, markFailed, recordedParent } from './core.ts';
import { targetAttributes } from './database.ts';

// The semantic conventions' value (still incubating there, so not imported).
const redisSystem = 'redis';

type Command = Parameters<Redis['sendCommand']>[0];

export function traceRedis(core: Core, client: Redis | Cluster): void {
  const send = client.sendCommand.bind(client) as Redis['sendCommand'];
  // A Cluster's commands go to many nodes: its spans name none.
  const { host, port, db } = 'host' in client.options ? client.options : ({} as Partial<Redis['options']>);
  const target = targetAttributes({
    address: host,
    port,
    namespace: db === undefined ? undefined : String(db),
  });
  client.sendCommand = (command: Command, ...rest: unknown[]) => {
    const parent = recordedParent(core);
    if (parent === undefined) return send(command, ...(rest as [never]));
    const operation = command.name.toUpperCase();
    const span = core.tracer.startSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        attributes: sanitize({ [ATTR_DB_SYSTEM_NAME]: redisSystem, [ATTR_DB_OPERATION_NAME]: operation, ...target }),
      },
      parent,
    );
    const sent = send(command, ...(rest as [never]));
    command.promise.then(
      () => span.end(),
      (error: unknown) => {
        markFailed(span, errorType(error));
        span.end();
      },
    );
    return sent;
  };
}
