// The public metadata operations: GET /capabilities, /regions and /status.
import type { Config } from '@devplat/config';
import { apiVersion, limits } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { countriesWithReviewedCities } from '@devplat/domain/registry';
import { ProblemError } from '@devplat/http';
import type { Middleware } from 'koa';
import { capabilities, type Integrations } from '../capabilities.ts';
import type { StatusSource } from '../status-source.ts';

export function getCapabilities(config: Config, integrations: Integrations): Middleware {
  return (ctx) => {
    ctx.body = {
      api_version: apiVersion,
      environment: config.environment,
      capabilities: capabilities(config, integrations),
    };
  };
}

/** Countries with at least one listed (reviewed) city, from the reviewed registry. */
export function getRegions(prisma: PrismaClient): Middleware {
  return async (ctx) => {
    const countries = await countriesWithReviewedCities(prisma, limits.maxDataItems + 1);
    // No pagination exists: a result that does not fit is refused, never cut short.
    if (countries.length > limits.maxDataItems) {
      throw new ProblemError('RESULT_TOO_LARGE', `More than ${limits.maxDataItems} countries have listed cities.`);
    }
    ctx.body = { api_version: apiVersion, data: countries, next_cursor: null };
  };
}

export function getStatus(config: Config, statusSource: StatusSource): Middleware {
  return async (ctx) => {
    ctx.body = {
      api_version: apiVersion,
      environment: config.environment,
      status: config.environment === 'sandbox' && config.platformEnabled ? 'sandbox' : 'limited',
      production_ready: false,
      platform: await statusSource.current(),
    };
  };
}
