/** Who recorded an event, from where, and why. */
export type EventMetadata = {
  actor: string;
  host?: string | undefined;
  pid?: number | undefined;
  reason?: string | undefined;
  toolVersion: string;
};
