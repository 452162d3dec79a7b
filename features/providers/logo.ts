/**
 * @module features/providers/logo — the logo served for a provider at /images/logos/<name>.svg: a
 * rounded square in a colour derived from the name (a hash picks the hue), with the name's initials.
 * Generated here, not a copy of any provider's trademark.
 */
import { createHash } from 'node:crypto';

/** Up to two letters: the first of each of the first two words of the name, else its first two. */
export function initialsOf(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (words.length === 0) return '?';
  if (words.length === 1) return words[0]!.slice(0, 2).replace(/^./, (c) => c.toUpperCase());
  return (words[0]![0]! + words[1]![0]!).toUpperCase();
}

/** A hue from the name, at a saturation and lightness that keep white text readable (contrast ≥ 4.5). */
export function colourOf(name: string): string {
  const hue = createHash('sha256').update(name).digest().readUInt16BE(0) % 360;
  return `hsl(${hue}, 60%, 34%)`;
}

export function providerLogoSvg(name: string): string {
  const initials = initialsOf(name).replace(/[<>&"']/g, '');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${initials}">`,
    `<rect width="64" height="64" rx="14" fill="${colourOf(name)}"/>`,
    `<text x="32" y="32" dy="0.35em" text-anchor="middle" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="${initials.length > 1 ? 26 : 32}" font-weight="600" fill="#ffffff">${initials}</text>`,
    '</svg>',
  ].join('');
}
