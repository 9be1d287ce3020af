// An app's access tokens of the last 24 hours for the operator (show-app and GET /apps/{client_id}).
// The count is Redis's and the rest of an app's details PostgreSQL's: a Redis that does not answer
// leaves this one figure unknown (null) rather than failing the whole answer.

import { DependencyUnavailableError } from '@devplat/errors';
import type { TokenUsage } from '@devplat/usage';

export async function tokensLastDayOrNull(usage: TokenUsage, appId: string): Promise<number | null> {
  try {
    return await usage.lastDay(appId);
  } catch (error) {
    if (error instanceof DependencyUnavailableError) return null;
    throw error;
  }
}
