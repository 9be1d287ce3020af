// The consent screen's authorization request, checked as oidc-provider checks its own
// (lib/actions/authorization/index.js): a list of named checks, one per rule of the contract's
// consent table, run in order. Each passes or refuses with a typed refusal. Until the app and the
// redirect URI are known good, a refusal is shown on the screen (ScreenRefusal: a player is never
// sent to an address the app has not registered); after, it goes back to the app's redirect URI as
// an OAuth error, one of oidc-provider's own error classes (RFC 6749, section 4.1.2.1).
import { type AppDirectory, findUsableApp, type UsableApp } from '@devplat/app-directory';
import { scopes as scopeCatalogue, userScopes } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { onReservedHost } from '@devplat/domain/apps';
import { DependencyUnavailableError } from '@devplat/errors';
import { errors } from 'oidc-provider';

/** What arrived, shown on a refusal so the app's developer can compare it with what they registered. */
export interface Arrived {
  clientId?: string;
  redirectUri?: string;
  /** The app's registered redirect URIs, beside the one that arrived. */
  registered?: string[];
}

/** A refusal shown on the screen itself: the app, or where to return the player, cannot be trusted. */
export class ScreenRefusal extends Error {
  readonly arrived?: Arrived;
  constructor(message: string, arrived?: Arrived) {
    super(message);
    if (arrived) this.arrived = arrived;
  }
}

export interface RequestRules {
  /** The token endpoint's directory of usable apps: a lookup costs a version read, not a query. */
  apps: AppDirectory;
  prisma: PrismaClient;
  issuer: string;
  /** The platform's cookie hosts: a redirect URI there is refused even if registered. */
  reservedHosts: readonly string[];
}

/** The request as the checks read it, and what they learn of it on the way. */
export interface CheckedRequest {
  query: Record<string, string | string[] | undefined>;
  /** A parameter sent once; null when it was repeated. */
  single(name: string): string | null | undefined;
  clientId?: string;
  app?: UsableApp;
  redirectUri?: string;
  scopes?: string[];
}

type Check = (request: CheckedRequest, rules: RequestRules) => void | Promise<void>;

const arrivedOf = ({ clientId, redirectUri, app }: CheckedRequest): Arrived => ({
  clientId,
  redirectUri,
  registered: app?.redirectUris,
});

/**
 * The app from the directory; from PostgreSQL, the directory's source, when the store cannot say
 * whether the directory's copy is current: the screen then goes on to answer the app with
 * temporarily_unavailable, as the contract has it, where a refusal page would strand the player.
 */
async function usableApp({ apps, prisma }: RequestRules, clientId: string): Promise<UsableApp | null> {
  try {
    return await apps.find(clientId);
  } catch (error) {
    if (!(error instanceof DependencyUnavailableError) || error.dependency !== 'Redis') throw error;
    return findUsableApp(prisma, clientId);
  }
}

/** A parameter with the one value the platform supports: refused as `Refusal` says, naming that value. */
const onlySupported =
  (name: string, value: string, Refusal: new (description: string) => Error): Check =>
  ({ single }) => {
    if (single(name) !== value) throw new Refusal(`only ${name}=${value} is supported`);
  };

/** The checks, in the order they run: the first refusal answers. */
export const authorizationChecks: [name: string, check: Check][] = [
  [
    'client_id is given',
    (request) => {
      request.clientId = request.single('client_id') ?? undefined;
      if (!request.clientId) throw new ScreenRefusal('The request does not say which app it is from.');
    },
  ],
  [
    'the app may get tokens',
    async (request, rules) => {
      request.app = (await usableApp(rules, request.clientId as string)) ?? undefined;
      if (!request.app) {
        throw new ScreenRefusal('The app is unknown or not available.', { clientId: request.clientId });
      }
    },
  ],
  [
    'redirect_uri is registered, exactly',
    (request) => {
      request.redirectUri = request.single('redirect_uri') ?? undefined;
      if (!request.redirectUri) {
        throw new ScreenRefusal(
          'The request does not say where to return you (redirect_uri is missing).',
          arrivedOf(request),
        );
      }
      if (!request.app?.redirectUris.includes(request.redirectUri)) {
        throw new ScreenRefusal(
          'The app asked to return you to an address it has not registered. Redirect URIs must match one registered for the app exactly, character for character.',
          arrivedOf(request),
        );
      }
    },
  ],
  [
    "redirect_uri is not on the platform's own hosts",
    // A URI registered before the platform's hosts changed may point at one of them now.
    (request, { reservedHosts }) => {
      if (onReservedHost(request.redirectUri as string, reservedHosts)) {
        throw new ScreenRefusal(
          "The app asked to return you to an address on the platform's own sites, which no app may use.",
          arrivedOf(request),
        );
      }
    },
  ],
  [
    'no parameter is repeated',
    ({ query }) => {
      const repeated = Object.entries(query).find(([, value]) => Array.isArray(value));
      if (repeated) throw new errors.InvalidRequest(`${repeated[0]} appears more than once`);
    },
  ],
  ['response_type is code', onlySupported('response_type', 'code', errors.UnsupportedResponseType)],
  [
    'PKCE: a code_challenge',
    ({ single }) => {
      if (!single('code_challenge')) {
        throw new errors.InvalidRequest('PKCE is required: send code_challenge with code_challenge_method=S256');
      }
    },
  ],
  ['PKCE: S256 only', onlySupported('code_challenge_method', 'S256', errors.InvalidRequest)],
  [
    'PKCE: a SHA-256 digest in base64url',
    ({ single }) => {
      if (!/^[A-Za-z0-9_-]{43}$/.test(single('code_challenge') as string)) {
        throw new errors.InvalidRequest('code_challenge must be a base64url SHA-256 digest');
      }
    },
  ],
  [
    'scope is given',
    (request) => {
      request.scopes = [...new Set((request.single('scope') ?? '').split(' ').filter(Boolean))];
      if (request.scopes.length === 0) throw new errors.InvalidScope('scope is required', '');
    },
  ],
  [
    'each scope is a user scope granted to the app',
    ({ scopes = [], app }) => {
      for (const scope of scopes) {
        const userScope = scope in scopeCatalogue && (userScopes as readonly string[]).includes(scope);
        if (!userScope || !app?.scopes.includes(scope)) {
          throw new errors.InvalidScope(`${scope} is not granted to this app`, scope);
        }
      }
    },
  ],
];

/** A query as the checks read it. */
export function checkedRequest(query: CheckedRequest['query']): CheckedRequest {
  return { query, single: (name) => (Array.isArray(query[name]) ? null : query[name]) };
}
