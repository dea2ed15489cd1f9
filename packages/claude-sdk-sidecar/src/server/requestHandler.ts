import { type RequestPayload, type RequestResult, type RequestType, statelessRequestTypes } from '@outrigger/protocol';

/** The requests that read provider history without a session. */
export type StatelessRequestType = (typeof statelessRequestTypes)[number];

/** The requests a session runs, in order, one at a time. */
export type SessionRequestType = Exclude<RequestType, StatelessRequestType>;

/**
 * Handles one validated request of type `T`; `requestId` is the id its answer carries. It resolves with
 * the protocol result of `T`, or with nothing where `ok` carries no payload.
 */
export type RequestHandler<T extends RequestType> = (
  payload: RequestPayload<T>,
  requestId: string | undefined,
) => Promise<RequestResult<T> extends undefined ? void : RequestResult<T>>;

/** One handler per request type in `K`, each typed by its own payload and result. */
export type RequestHandlerTable<K extends RequestType> = { readonly [T in K]: RequestHandler<T> };

const statelessTypes: ReadonlySet<RequestType> = new Set(statelessRequestTypes);

export function isStatelessRequest(type: RequestType): type is StatelessRequestType {
  return statelessTypes.has(type);
}
