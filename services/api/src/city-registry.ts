// The reviewed city registry projection served by GET /cities. Registry reviews are rare and the
// data is public, so the projection is kept for a few seconds instead of being rebuilt on every
// call; concurrent callers share one rebuild.
import type { PrismaClient } from '@devplat/db';

export interface City {
  id: string;
  name: string;
  country_code: string;
  availability: string;
  supported_capabilities: string[];
}

export interface CityRegistry {
  /** Every reviewed city, ordered by id. */
  reviewed(): Promise<City[]>;
}

export function cityRegistry(prisma: PrismaClient, keepMs = 5_000): CityRegistry {
  let cached: { cities: City[]; until: number } | undefined;
  let rebuilding: Promise<City[]> | undefined;
  const rebuild = async () => {
    const rows = await prisma.city.findMany({
      where: { reviewed: true },
      orderBy: { id: 'asc' },
      select: { id: true, name: true, countryCode: true, availability: true, supportedCapabilities: true },
    });
    const cities = rows.map((city) => ({
      id: city.id,
      name: city.name,
      country_code: city.countryCode,
      availability: city.availability,
      supported_capabilities: city.supportedCapabilities,
    }));
    cached = { cities, until: Date.now() + keepMs };
    return cities;
  };
  return {
    reviewed() {
      if (cached && cached.until > Date.now()) return Promise.resolve(cached.cities);
      rebuilding ??= rebuild().finally(() => {
        rebuilding = undefined;
      });
      return rebuilding;
    },
  };
}
