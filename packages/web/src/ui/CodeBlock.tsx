import type { ThemedToken } from '@shikijs/core';
import { type CSSProperties, useEffect, useState } from 'react';
import { CopyButton } from './CopyButton.tsx';
import { highlight } from './highlighter.ts';

/** A fenced code block: language label, copy button, and highlighting once the block is complete. */
export function CodeBlock({ code, language, complete }: { code: string; language: string; complete: boolean }) {
  const [tokens, setTokens] = useState<ThemedToken[][] | null>(null);
  useEffect(() => {
    if (!complete || language === '') return;
    let current = true;
    highlight(code, language).then(
      (result) => {
        if (current) setTokens(result);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [code, language, complete]);

  return (
    <div className="codeblock">
      <div className="codeblock-head">
        <span>{language === '' ? 'text' : language}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      <pre>
        <code>
          {tokens === null
            ? code
            : tokens.map((line, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: lines of one immutable block
                <span key={index}>
                  {line.map((token, column) => (
                    <span
                      // biome-ignore lint/suspicious/noArrayIndexKey: tokens of one immutable line
                      key={column}
                      className="shiki-token"
                      style={token.htmlStyle as CSSProperties | undefined}
                    >
                      {token.content}
                    </span>
                  ))}
                  {index < tokens.length - 1 ? '\n' : ''}
                </span>
              ))}
        </code>
      </pre>
    </div>
  );
}
