/** A form turned into an operation's input, validated by the same zod schema as the admin API's body. */
import type { z } from "zod";
import { validationDetail } from "../api/issues";
import { ApiError } from "../errors";

/** The parsed value, or a 422 whose detail names the field and the rule (as the API's). */
export function parsed<T extends z.ZodType>(schema: T, value: unknown, rewrite: (detail: string) => string = (d) => d): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError(422, rewrite(validationDetail(result.error)));
  return result.data;
}
