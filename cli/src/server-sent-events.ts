// Reading a Server-Sent Events body (the console's event and request-log streams) as messages, in
// the format's own terms: blank lines end a message, `:` lines are comments, a CR before LF is dropped.

/** One message of a stream: its id (empty when it gave none), event name and data (lines joined). */
export interface ServerSentEvent {
  id: string;
  event: string;
  data: string;
}

/** The messages of a Server-Sent Events body: id (the last one given), event name and data. */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let message = { id: '', event: 'message', data: [] as string[] };
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    const lines = buffer.split('\n');
    buffer = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line === '') {
        if (message.data.length || message.id) {
          yield { id: message.id, event: message.event, data: message.data.join('\n') };
        }
        message = { id: '', event: 'message', data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') message.data.push(value);
      else if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
    }
  }
}
