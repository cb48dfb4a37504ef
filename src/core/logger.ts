import { type DestinationStream, type Logger, type LoggerOptions, pino } from "pino";

export type { Logger };

/**
 * A pino logger. Logs go to stderr so that a command's stdout stays machine-readable; the level comes from
 * `IRONCLAW_LOG` (default `info`, `silent` to turn logs off).
 */
export function createLogger(
  name: string,
  options: LoggerOptions = {},
  destination?: DestinationStream,
): Logger {
  const level = options.level ?? process.env.IRONCLAW_LOG ?? "info";
  return pino({ name, ...options, level }, destination ?? pino.destination(2));
}
