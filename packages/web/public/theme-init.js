// The manual theme choice before the first paint, so a dark page never flashes white. A file of its own, not
// inline in index.html: the host's Content-Security-Policy (`script-src 'self'`) refuses inline scripts.
try {
  const theme = localStorage.getItem('outrigger.theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.setAttribute('data-theme', theme);
} catch {}
