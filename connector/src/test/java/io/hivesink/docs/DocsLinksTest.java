package io.hivesink.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every link, image and repository path in the docs points at something that exists, so that a moved page, a renamed
 * heading or a deleted file fails the build instead of leaving a reader at a dead end. It reads README.md,
 * CONTRIBUTING.md and every Markdown page of docs/ at the repository root (the tests run in connector/) and checks
 * relative link and image targets, their anchors (GitHub's heading slugs), and the paths written in backticks that
 * start with a top-level directory of the repository. Web links, build output and placeholders are not checked.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..");
    /** A link or an image, [text](target) or ![alt](target), with an optional "title". */
    private static final Pattern LINK =
            Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    /** A code span: a run of backticks, then anything up to the same run, within one paragraph. */
    private static final Pattern CODE_SPAN =
            Pattern.compile("(?<!`)(`+)((?:(?!\\n\\s*\\n).)+?)(?<!`)\\1(?!`)", Pattern.DOTALL);
    private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~).*");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)(?:\\s+#+)?\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern LINK_IN_HEADING = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");
    /** Not a file path: whitespace, wildcards, placeholders, elisions, URLs, lists, settings. */
    private static final Pattern NOT_A_PATH = Pattern.compile("[\\s*?<>{}$|,;:=()'\"\u2026]|\\.\\.\\.");

    @Test
    void everyLinkAndPathInTheDocsExists() throws IOException {
        List<String> problems = new ArrayList<>();
        int checked = check(ROOT, problems);
        assertTrue(problems.isEmpty(), "Broken links or paths in the docs (page:line: target):\n"
                + String.join("\n", problems));
        assertTrue(checked >= 100, "the docs were read: only " + checked + " links and paths found");
    }

    /** Checks the docs under root, adds one line per broken target to problems, and returns how many it checked. */
    static int check(Path root, List<String> problems) throws IOException {
        List<Path> docs = new ArrayList<>();
        for (String name : List.of("README.md", "CONTRIBUTING.md")) {
            Path doc = root.resolve(name);
            if (Files.isRegularFile(doc)) {
                docs.add(doc);
            } else {
                problems.add(name + " is missing");
            }
        }
        try (Stream<Path> files = Files.list(root.resolve("docs"))) {
            files.filter(f -> f.getFileName().toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        Map<Path, Set<String>> anchors = new HashMap<>();
        int checked = 0;
        for (Path doc : docs) {
            checked += checkDoc(root, doc, anchors, problems);
        }
        return checked;
    }

    private static int checkDoc(Path root, Path doc, Map<Path, Set<String>> anchors, List<String> problems)
            throws IOException {
        String name = root.relativize(doc).toString().replace('\\', '/');
        String prose = withoutFencedCode(Files.readString(doc, StandardCharsets.UTF_8));
        StringBuilder masked = new StringBuilder(prose);
        int checked = 0;
        Matcher span = CODE_SPAN.matcher(prose);
        while (span.find()) {
            for (int i = span.start(); i < span.end(); i++) {
                if (prose.charAt(i) != '\n') {
                    masked.setCharAt(i, ' ');
                }
            }
            String path = span.group(2).strip();
            if (isRepositoryPath(root, path)) {
                checked++;
                if (!Files.exists(root.resolve(path))) {
                    problems.add(name + ":" + lineOf(prose, span.start()) + ": `" + path + "` does not exist");
                }
            }
        }
        Matcher link = LINK.matcher(masked);
        while (link.find()) {
            String target = link.group(1);
            if (target.startsWith("http://") || target.startsWith("https://") || target.startsWith("mailto:")) {
                continue;
            }
            checked++;
            String where = name + ":" + lineOf(prose, link.start()) + ": " + target;
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            String anchor = hash < 0 ? "" : target.substring(hash + 1);
            Path linked = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
            if (!Files.exists(linked)) {
                problems.add(where + " does not exist");
            } else if (!anchor.isEmpty() && linked.toString().endsWith(".md")
                    && !anchorsOf(linked, anchors).contains(anchor)) {
                problems.add(where + ": no heading with that anchor in " + root.relativize(linked));
            }
        }
        return checked;
    }

    /** A path in backticks is checked when it starts with a top-level directory and is not build output. */
    private static boolean isRepositoryPath(Path root, String text) {
        if (text.startsWith("/") || NOT_A_PATH.matcher(text).find()) {
            return false;
        }
        int slash = text.indexOf('/');
        if (slash <= 0) {
            return false;
        }
        String top = text.substring(0, slash);
        if (top.equals(".") || top.equals("..") || top.equals(".git") || ("/" + text + "/").contains("/target/")) {
            return false;
        }
        return Files.isDirectory(root.resolve(top));
    }

    /** The GitHub anchors of a Markdown file: one per heading, numbered from the second of a name on. */
    private static Set<String> anchorsOf(Path markdown, Map<Path, Set<String>> cache) throws IOException {
        Set<String> known = cache.get(markdown);
        if (known != null) {
            return known;
        }
        Set<String> slugs = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        String prose = withoutFencedCode(Files.readString(markdown, StandardCharsets.UTF_8));
        for (String line : prose.lines().toList()) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(1));
                int count = seen.merge(slug, 1, Integer::sum);
                slugs.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
        }
        Matcher html = HTML_ANCHOR.matcher(prose);
        while (html.find()) {
            slugs.add(html.group(1));
        }
        cache.put(markdown, slugs);
        return slugs;
    }

    /** GitHub's anchor for a heading: its text in lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        String text = LINK_IN_HEADING.matcher(heading).replaceAll("$1");
        return text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\p{M}_\\- ]", "").replace(' ', '-');
    }

    /** The text with every line of a fenced code block blanked, so that line numbers stay as they are. */
    private static String withoutFencedCode(String markdown) {
        StringBuilder out = new StringBuilder();
        String fence = null;
        for (String line : markdown.lines().toList()) {
            Matcher opening = FENCE.matcher(line);
            if (fence == null && opening.matches()) {
                fence = opening.group(1);
                out.append('\n');
            } else if (fence != null) {
                if (line.strip().startsWith(fence)) {
                    fence = null;
                }
                out.append('\n');
            } else {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
