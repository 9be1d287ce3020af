// Loads the sample reviewed city registry (prisma/seed/registry.json). Idempotent: countries and
// cities are upserted by their ids, so a second run changes nothing.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PrismaClient } from './generated/client.ts';
import type { CityAvailability } from './generated/enums.ts';
import { prismaDir } from './paths.ts';

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
