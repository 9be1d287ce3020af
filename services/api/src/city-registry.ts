// The reviewed city registry projection served by GET /cities. Registry reviews are rare and the
// data is public, so the projection is kept for a few seconds instead of being rebuilt on every
// call; concurrent callers share one rebuild.
import type { PrismaClient } from '@devplat/db';
import { reviewedCities } from '@devplat/domain/registry';
import { keptValue } from './kept-value.ts';

export interface City {
  id: string;
  name: string;
  country_code: string;
  availability: string;
  supported_capabilities: string[];
}

export interface CityRegistry {
  /** Every reviewed city, ordered by id: the same array until the projection is rebuilt. */
  reviewed(): Promise<City[]>;
}

export function cityRegistry(prisma: PrismaClient, keepMs = 5_000): CityRegistry {
  const load = async (): Promise<City[]> => {
    const rows = await reviewedCities(prisma);
    return rows.map((city) => ({
      id: city.id,
      name: city.name,
      country_code: city.countryCode,
      availability: city.availability,
      supported_capabilities: city.supportedCapabilities,
    }));
  };
  return { reviewed: keptValue(load, () => keepMs) };
}
