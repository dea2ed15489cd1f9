import { useCallback, useEffect, useState } from 'react';

export type ThemeChoice = 'system' | 'light' | 'dark';
const key = 'outrigger.theme';

function stored(): ThemeChoice {
  try {
    const value = localStorage.getItem(key);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Follows the system unless the person picked light or dark; the choice survives reloads. */
export function useTheme(): [ThemeChoice, () => void] {
  const [choice, setChoice] = useState<ThemeChoice>(stored);
  useEffect(() => {
    if (choice === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', choice);
    try {
      if (choice === 'system') localStorage.removeItem(key);
      else localStorage.setItem(key, choice);
    } catch {
      // The choice still applies to this page.
    }
  }, [choice]);
  const cycle = useCallback(
    () => setChoice((current) => (current === 'system' ? 'light' : current === 'light' ? 'dark' : 'system')),
    [],
  );
  return [choice, cycle];
}
