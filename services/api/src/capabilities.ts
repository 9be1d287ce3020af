import { type Config, sandboxToolsEnabled } from '@devplat/config';
import type { CapabilityKey } from '@devplat/contract';

/** What this deployment has integrated; each service that runs sets its own. */
export interface Integrations {
  oauth: boolean;
  cityRegistry: boolean;
  playerProfile: boolean;
  consentWebhooks: boolean;
  developerConsole: boolean;
}

export const noIntegrations: Integrations = {
  oauth: false,
  cityRegistry: false,
  playerProfile: false,
  consentWebhooks: false,
  developerConsole: false,
};

/**
 * The api service of a split deployment: the auth service issues the tokens; the console and the
 * webhook worker run beside it wherever configuration turns the sandbox tools on
 * (sandboxToolsEnabled), exactly as in the one-process platform.
 */
export const splitIntegrations: Integrations = {
  oauth: true,
  cityRegistry: true,
  playerProfile: true,
  consentWebhooks: true,
  developerConsole: true,
};

/**
 * A capability that is not integrated or is switched off is false; commerce, regulated assets
 * and everything the contract says does not exist yet are always false.
 */
export function capabilities(config: Config, integrations: Integrations): Record<CapabilityKey, boolean> {
  const on = config.platformEnabled;
  const oauth = on && integrations.oauth;
  return {
    oauth_client_credentials: oauth,
    oauth_authorization_code: oauth,
    oauth_refresh_token_rotation: oauth,
    oauth_token_revocation: oauth,
    city_registry: oauth && integrations.cityRegistry,
    player_profile: oauth && integrations.playerProfile,
    consent_webhooks: integrations.consentWebhooks && sandboxToolsEnabled(config),
    developer_console: integrations.developerConsole && sandboxToolsEnabled(config),
    platform_status: config.statusUrl !== null,
    production_credentials: false,
    commerce: false,
    regulated_assets: false,
    entitlements: false,
    game_sessions: false,
    leaderboards: false,
    webhook_management: false,
    rate_limiting: false,
    signed_pagination: false,
    sdks: false,
  };
}
