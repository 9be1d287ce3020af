import type { Config } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import type { DeveloperApps } from './apps.ts';
import type { DeveloperWebhooks } from './webhooks.ts';

/** What a domain part may be built from: the platform's stores and the parts built before it. */
export interface DomainParts {
  config: Config;
  prisma: PrismaClient;
  store: KeyValueStore;
  pairwiseSecret: string;
  apps: DeveloperApps;
  webhooks: DeveloperWebhooks;
  metrics?: Metrics;
}
