/**
 * The devserver's application context handed to every route module: the state, the clock,
 * id generation and the change notification that drives persistence.
 */
import { randomUUID } from 'node:crypto';
import type { StateData } from './state/types.ts';

/** What the routes need from the secret store (folders and secrets per project environment). */
export interface SecretStoreHooks {
  createEnvironment(projectId: string, envSlug: string): void;
  renameEnvironment(projectId: string, from: string, to: string): void;
  deleteEnvironment(projectId: string, envSlug: string): void;
  deleteProject(projectId: string): void;
  toJSON(): unknown;
}

/** What the routes need from the event hub. */
export interface EventHubHooks {
  closeProject(projectId: string): void;
  closeAll(): void;
}

export interface DevAppOptions {
  state: StateData;
  secrets: unknown;
  now: () => number;
  onChange: () => void;
}

/** Shared context for route handlers. */
export class DevApp {
  state: StateData;
  readonly secrets: SecretStoreHooks;
  readonly events: EventHubHooks;
  private readonly clock: () => number;
  private readonly onChange: () => void;

  constructor(options: DevAppOptions) {
    this.state = options.state;
    this.clock = options.now;
    this.onChange = options.onChange;
    this.secrets = {
      createEnvironment: () => undefined,
      renameEnvironment: () => undefined,
      deleteEnvironment: () => undefined,
      deleteProject: () => undefined,
      toJSON: () => undefined,
    };
    this.events = { closeProject: () => undefined, closeAll: () => undefined };
  }

  /** JSON of the secret store, for persistence. */
  secretsSnapshot(): unknown {
    return this.secrets.toJSON();
  }

  /** Ends open event streams (server shutdown). */
  shutdown(): void {
    this.events.closeAll();
  }

  /** Milliseconds since the epoch on the server's clock (injectable for tests). */
  now(): number {
    return this.clock();
  }

  /** The current time as an ISO-8601 string. */
  iso(): string {
    return new Date(this.clock()).toISOString();
  }

  /** A new random UUID. */
  newId(): string {
    return randomUUID();
  }

  /** Signals a state change so the persister saves it. */
  changed(): void {
    this.onChange();
  }
}
