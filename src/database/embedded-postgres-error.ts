/**
 * A start-up failure of the embedded PostgreSQL whose message is one
 * sentence a person can act on (what is wrong and the fix). Printed as is.
 */
export class EmbeddedPostgresError extends Error {}
