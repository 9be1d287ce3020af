// The players room: what can be done to sandbox players (created under the player's rules:
// rules.ts) and what may be read of them. Only store.ts touches the sandbox_players table.
export {
  createPlayerOfDeveloper,
  playerOfDeveloper,
  sandboxPlayers,
  setPlayerStatusOfDeveloper,
} from './developers.ts';
export {
  createPlayer,
  disablePlayer,
  enablePlayer,
  type NewPlayer,
  type PlayerStatusChange,
} from './operations.ts';
export { playerNamed, playerWithUsername } from './operators.ts';
export { checkedPlayer, minimumPlayerPasswordLength, type PlayerMembers, username } from './rules.ts';
export { type PlayerSearch, searchPlayers } from './search.ts';
export {
  type ActivePlayer,
  activePlayers,
  findPlayer,
  findPlayerByUsername,
  findPlayerOfAccount,
  findPlayerOfAccountEmail,
  playerCountsOfAccount,
  playersOfAccount,
} from './store.ts';
