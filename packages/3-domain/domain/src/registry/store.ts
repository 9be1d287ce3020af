// The only module that reads or writes countries and cities: the reviewed city registry. Reviews
// happen outside the platform; here it is loaded (the sample, prisma/seed/registry.json) and read
// for GET /cities and GET /regions.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CityAvailability, type PrismaClient, prismaDir } from '@devplat/db';
import type { Db } from '../db.ts';

interface RegistryFile {
  countries: { code: string; name: string; region: string }[];
  cities: {
    id: string;
    name: string;
    country_code: string;
    availability: CityAvailability;
    supported_capabilities: string[];
    reviewed: boolean;
  }[];
}

/**
 * Loads the sample reviewed registry. Idempotent: countries and cities are upserted by their ids,
 * so a second run changes nothing.
 */
export async function seedRegistry(prisma: PrismaClient, file = join(prismaDir, 'seed/registry.json')) {
  const registry = JSON.parse(await readFile(file, 'utf8')) as RegistryFile;
  const reviewedAt = new Date('2026-01-01T00:00:00Z');
  await prisma.$transaction([
    ...registry.countries.map((country) =>
      prisma.country.upsert({ where: { code: country.code }, create: country, update: country }),
    ),
    ...registry.cities.map((city) => {
      const data = {
        name: city.name,
        countryCode: city.country_code,
        availability: city.availability,
        supportedCapabilities: city.supported_capabilities,
        reviewed: city.reviewed,
        reviewedAt: city.reviewed ? reviewedAt : null,
      };
      return prisma.city.upsert({ where: { id: city.id }, create: { id: city.id, ...data }, update: data });
    }),
  ]);
  return { countries: registry.countries.length, cities: registry.cities.length };
}

/** True when no city is kept: a new embedded database is loaded with the sample then. */
export const registryIsEmpty = async (db: Db): Promise<boolean> => (await db.city.count()) === 0;

/** Every reviewed city, ordered by id, as GET /cities lists them. */
export const reviewedCities = (db: Db) =>
  db.city.findMany({
    where: { reviewed: true },
    orderBy: { id: 'asc' },
    select: { id: true, name: true, countryCode: true, availability: true, supportedCapabilities: true },
  });

/** Countries with at least one reviewed city (with those cities), by code; at most `limit`. */
export const countriesWithReviewedCities = (db: Db, limit: number) =>
  db.country.findMany({
    where: { cities: { some: { reviewed: true } } },
    orderBy: { code: 'asc' },
    take: limit,
    select: {
      code: true,
      name: true,
      region: true,
      cities: { where: { reviewed: true }, orderBy: { id: 'asc' }, select: { id: true, availability: true } },
    },
  });
