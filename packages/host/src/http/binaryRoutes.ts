import type { RoutesOfKind } from '@outrigger/host-api';
import type { RouteHandler } from './routeContext.ts';

/** The `binary` routes: bytes with their own content type, not JSON (mapped over them, like every handler table). */
export const binaryHandlers: { [N in RoutesOfKind<'binary'>]: RouteHandler<N> } = {
  getAttachment: async (_c, { attachmentId }, { service }) => {
    const { mediaType, bytes } = await service.getAttachment(attachmentId);
    return new Response(bytes, {
      status: 200,
      headers: {
        'content-type': mediaType,
        'content-length': String(bytes.byteLength),
        // An attachment never changes under its id.
        'cache-control': 'private, max-age=31536000, immutable',
        'content-disposition': 'inline',
      },
    });
  },
};
