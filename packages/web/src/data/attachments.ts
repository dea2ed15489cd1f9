import { hostLimits, type ImageMediaType, imageMediaTypes } from '@outrigger/host-api';

/** An image ready to send: its base64 bytes and a name for the chip. */
export interface ImageAttachment {
  id: string;
  name: string;
  mediaType: ImageMediaType;
  bytes: number;
  data: string;
}

/** Why a file cannot be attached, in words for the person; null when it can. */
export function attachmentProblem(
  file: { name: string; type: string; size: number },
  alreadyAttached: number,
): string | null {
  if (!(imageMediaTypes as readonly string[]).includes(file.type))
    return `${file.name} is not a PNG, JPEG, GIF or WebP image.`;
  if (file.size > hostLimits.maxImageBytes)
    return `${file.name} is ${(file.size / 1024 / 1024).toFixed(1)} MB; images may have at most ${hostLimits.maxImageBytes / 1024 / 1024} MB.`;
  if (alreadyAttached >= hostLimits.maxImagesPerTurn)
    return `A message may carry at most ${hostLimits.maxImagesPerTurn} images.`;
  return null;
}

/** Base64 of bytes, in chunks (a spread of millions of arguments would overflow the stack). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let index = 0; index < bytes.length; index += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}

export async function readAttachment(file: File): Promise<ImageAttachment> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return {
    id: crypto.randomUUID(),
    name: file.name,
    mediaType: file.type as ImageMediaType,
    bytes: bytes.length,
    data: toBase64(bytes),
  };
}
