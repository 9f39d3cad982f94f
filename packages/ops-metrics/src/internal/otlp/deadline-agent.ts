import type { Agent } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The HTTP agent the OTLP exporter sends through, with every socket it opened in hand. The
 * exporter's own timeout is the socket's idle timeout, which a receiver answering one byte at a
 * time restarts with each byte: `abort()` is what makes the push's deadline a deadline for the
 * whole request, whatever arrives.
 */
export interface DeadlineAgent {
  /** What the exporter's `httpAgentOptions` takes: the agent for the endpoint's scheme. */
  readonly factory: (protocol: string) => Promise<Agent>;
  /** Destroys every socket the agent holds; until `resume()`, a new one is destroyed as it opens. */
  abort(): void;
  resume(): void;
}

export function createDeadlineAgent(): DeadlineAgent {
  const sockets = new Set<Socket>();
  let aborting = false;
  let agent: Agent | undefined;

  const track = (created: Agent): Agent => {
    type CreateConnection = (options: unknown, callback: unknown) => Socket;
    const withConnection = created as unknown as { createConnection: CreateConnection };
    const base = withConnection.createConnection.bind(created);
    withConnection.createConnection = (options, callback) => {
      const socket = base(options, callback);
      if (aborting) {
        process.nextTick(() => socket.destroy(new Error('the push passed its deadline')));
        return socket;
      }
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      return socket;
    };
    return created;
  };

  return {
    factory: async (protocol) => {
      // node:https (and with it node:tls) loads only for an https:// endpoint.
      const module = protocol === 'https:' ? await import('node:https') : await import('node:http');
      agent ??= track(new module.Agent({ keepAlive: true }));
      return agent;
    },
    abort: () => {
      aborting = true;
      for (const socket of sockets) socket.destroy(new Error('the push passed its deadline'));
      sockets.clear();
    },
    resume: () => {
      aborting = false;
    },
  };
}
