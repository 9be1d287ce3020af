// The registry room: the reviewed city registry (countries and cities), loaded from the sample and
// read by the api's GET /cities and GET /regions. Only store.ts touches the two tables.
export { countriesWithReviewedCities, registryIsEmpty, reviewedCities, seedRegistry } from './store.ts';
