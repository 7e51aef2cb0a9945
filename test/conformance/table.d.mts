export const START: string;
export const END: string;
export const README: string;
export function compatibilityTable(entries?: object[], cases?: object[]): string;
export function readmeBlock(text?: string): string | undefined;
