const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether PostgreSQL can cast the value to uuid: check before a query casts an outside value. */
export const isUuid = (value: string): boolean => uuidPattern.test(value);
