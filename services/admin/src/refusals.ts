// The admin command's one table from the domain's refusals to exit codes (sysexits.h): main.ts
// prints the refusal's detail on one line and exits with its code.
import type { RefusalCode } from '@devplat/domain/refusal';
import { exitCodes } from './command.ts';

/** Every refusal is bad input data (65), but a lock that passes, which is worth a later try (75). */
export const refusalExitCodes: Record<RefusalCode, number> = {
  INVALID_INPUT: exitCodes.dataError,
  TOO_MANY_REDIRECT_URIS: exitCodes.dataError,
  INVALID_REDIRECT_URI: exitCodes.dataError,
  INVALID_SCOPES: exitCodes.dataError,
  UNKNOWN_SCOPE: exitCodes.dataError,
  WEBHOOK_URL_REFUSED: exitCodes.dataError,
  ACCOUNT_NOT_FOUND: exitCodes.dataError,
  APP_NOT_FOUND: exitCodes.dataError,
  SECRET_NOT_FOUND: exitCodes.dataError,
  PLAYER_NOT_FOUND: exitCodes.dataError,
  DELIVERY_NOT_FOUND: exitCodes.dataError,
  API_KEY_NOT_FOUND: exitCodes.dataError,
  CONSENT_NOT_FOUND: exitCodes.dataError,
  INVALID_CREDENTIALS: exitCodes.dataError,
  TOO_MANY_ATTEMPTS: exitCodes.tempFail,
  TOO_MANY_REQUESTS: exitCodes.tempFail,
  GUEST_ACCOUNT: exitCodes.dataError,
  ACCOUNT_SUSPENDED: exitCodes.dataError,
  EMAIL_TAKEN: exitCodes.dataError,
  USERNAME_TAKEN: exitCodes.dataError,
  SECRET_LIMIT: exitCodes.dataError,
  API_KEY_LIMIT: exitCodes.dataError,
  APP_DISABLED: exitCodes.dataError,
  APP_SUSPENDED: exitCodes.dataError,
  NO_WEBHOOK_URL: exitCodes.dataError,
  DELIVERY_NOT_FAILED: exitCodes.dataError,
  DELIVERY_REPLAYED: exitCodes.dataError,
};
