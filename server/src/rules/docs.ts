/**
 * Reads a rule's documentation from the doc comment at the top of its file
 * (the ruff convention): the Markdown between `/**` and `*\/`, with the
 * leading ` * ` removed. Used to generate docs/rules/<name>.md and hover text,
 * and by the test that runs each rule's Example and Use instead.
 */
export interface RuleDoc {
  markdown: string;
  example?: string;
  useInstead?: string;
}

export function parseRuleDoc(source: string): RuleDoc {
  const m = /\/\*\*([\s\S]*?)\*\//.exec(source);
  const markdown = m ? m[1].split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n').trim() : '';
  const section = (title: string): string | undefined => {
    const re = new RegExp(`## ${title}\\n+\`\`\`python\\n([\\s\\S]*?)\`\`\``);
    return re.exec(markdown)?.[1];
  };
  return { markdown, example: section('Example'), useInstead: section('Use instead') };
}
