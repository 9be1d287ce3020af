// What every find-* command is: filters, each an option that sets one member of the domain's search;
// the search run a page at a time (--limit, --cursor); and the page printed as a table, or a
// sentence when nothing matches, with where the next page starts.
import type { PrismaClient } from '@devplat/db';
import type { Page } from '@devplat/domain/audit';
import { type Command, type Invocation, type OptionSpec, stringOption } from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';
import { pageOf, pageOptions, printPage, text } from './listing.ts';

/** An option of a find-* command, and the member of the search its value sets. */
export interface Filter {
  member: string;
  option: OptionSpec;
}

export const filter = (member: string, option: OptionSpec): Filter => ({ member, option });

/** --since and --until of a search by creation time. */
export const createdRangeFilters: Filter[] = [
  filter('createdSince', stringOption('since', '<ISO time>', 'Created from this time (inclusive)')),
  filter('createdUntil', stringOption('until', '<ISO time>', 'Created before this time (exclusive)')),
];

export interface FindCommand<Item> extends Pick<Command, 'path' | 'summary' | 'description'> {
  /** The command's options but the page's, in the order help shows them. */
  filters: Filter[];
  search(prisma: PrismaClient, query: SearchQuery): Promise<Page<Item>>;
  headings: readonly string[];
  /** A page's rows, a cell a heading. */
  rows(prisma: PrismaClient, items: Item[]): Promise<string[][]> | string[][];
  /** What is printed instead of the table when nothing matches. */
  none: string;
}

/** The filters given, as the search's members; one not given sets nothing. */
function filtersGiven(invocation: Invocation, filters: Filter[]): Record<string, string> {
  return Object.fromEntries(
    filters.flatMap(({ member, option }) => {
      const value = text(invocation, option.name);
      return value === undefined ? [] : [[member, value]];
    }),
  );
}

/** What the domain's search is given: the filters given, then the page. */
const queryOf = (invocation: Invocation, filters: Filter[]) => ({
  ...filtersGiven(invocation, filters),
  ...pageOf(invocation),
});

type SearchQuery = ReturnType<typeof queryOf>;

export function findCommand<Item>({ filters, search, headings, rows, none, ...command }: FindCommand<Item>): Command {
  return {
    ...command,
    args: [],
    options: [...filters.map(({ option }) => option), ...pageOptions],
    run: (invocation) =>
      withDatabase(adminConfig(invocation.env), async (prisma) => {
        const { items, nextCursor } = await search(prisma, queryOf(invocation, filters));
        const found = await rows(prisma, items);
        printPage(invocation.io, { headings, rows: found, none }, nextCursor);
      }),
  };
}
