/** Messages between startSimServer and the simulator's worker thread, parsed on arrival. */
import * as z from 'zod';
import { RequestTraceSchema } from './trace';

export const WorkerCommandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('trace'), id: z.number().int() }),
  z.object({ type: z.literal('close') }),
]);
export type WorkerCommand = z.infer<typeof WorkerCommandSchema>;

export const WorkerReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready'), port: z.number().int().positive() }),
  z.object({ type: z.literal('error'), message: z.string(), configError: z.boolean() }),
  z.object({ type: z.literal('trace'), id: z.number().int(), requests: z.array(RequestTraceSchema) }),
]);
export type WorkerReply = z.infer<typeof WorkerReplySchema>;
