// Opaque bearer keys the platform hands to people (operator tokens, `devplat_admin_`, and developers'
// API keys, `devplat_key_`, whose prefix the console API's contract states): made with a prefix a
// secret scanner recognises, kept only as a hash, matched in constant time; and the operator tokens
// file that lists the hashes an admin listener accepts. The prefixes differ, so neither kind is
// taken at the other's door.
export {
  type KeyShape,
  keyShape,
  matchesHash,
  matchingSecret,
  newClientSecret,
  newKey,
  newWebhookSigningSecret,
  randomBase64url,
  randomToken,
  sameSecret,
  secretHash,
} from './secrets.ts';
export {
  type OperatorRole,
  type OperatorToken,
  operatorNamePattern,
  operatorRoles,
  operatorTokenPrefix,
  parseTokensFile,
  type TokensFileProblem,
} from './tokens-file.ts';
export { type TokensFileLog, type WatchedTokens, watchTokensFile } from './watch.ts';
