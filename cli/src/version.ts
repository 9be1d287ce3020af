/** The CLI's version (printed by devplat --version). */
export const version = '0.1.0';
