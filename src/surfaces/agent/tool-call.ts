// An MCP tool call reaches its route as an in-process request (mcp.call.ts, app.inject): the route's
// hooks and handler run as for any HTTP call. The few rules that differ for a tool (the plan-change
// tool applies only a quoted price) ask here whether the request they serve is a tool call.
import { AsyncLocalStorage } from 'node:async_hooks';

const toolCalls = new AsyncLocalStorage<{ tool: string }>();

/** Runs `fn` (the in-process request of tool `tool`) as a tool call. */
export const asToolCall = <T>(tool: string, fn: () => Promise<T>): Promise<T> => toolCalls.run({ tool }, fn);

/** Whether the request being served is an MCP tool call (a request made inside asToolCall). */
export const isToolCall = (): boolean => toolCalls.getStore() !== undefined;
