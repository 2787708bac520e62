package io.hivesink.hivechild31;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Runs a main class inside a {@link URLClassLoader} of its own. Hive 3.1 was written for Java 8, where the
 * application class loader was a {@code URLClassLoader}, and casts to it: its session set-up casts the loader that
 * defined Hive's classes, its resource handling the context loader. On Java 9 and later the application loader is
 * something else and the casts fail. So the child JVM's own class path is this module's classes only (this class
 * needs nothing else; the application loader never asks for the serializer stand-in beside it), and Hive, Hadoop and
 * hive-child's {@code HiveSqlMain} are all loaded by the loader made here, whose parent is the platform loader, and
 * which is also made the context loader.
 *
 * <p>Arguments: the file listing the class path (entries separated by the path separator or line ends), the main
 * class, then that class's own arguments.
 */
public final class IsolatedMain {

    private static final Pattern SEPARATORS = Pattern.compile("[" + File.pathSeparator + "\\r\\n]+");

    private IsolatedMain() {
    }

    public static void main(String[] args) throws Throwable {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: IsolatedMain <class path file> <main class> [arguments...]");
        }
        URLClassLoader loader = new URLClassLoader("hive-3.1", urls(Path.of(args[0])),
                ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        try {
            Class.forName(args[1], true, loader).getMethod("main", String[].class)
                    .invoke(null, (Object) Arrays.copyOfRange(args, 2, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static URL[] urls(Path listFile) throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String entry : SEPARATORS.splitAsStream(Files.readString(listFile, StandardCharsets.UTF_8)).toList()) {
            if (!entry.isBlank()) {
                urls.add(url(entry.strip()));
            }
        }
        return urls.toArray(new URL[0]);
    }

    private static URL url(String entry) throws MalformedURLException {
        // toUri() ends a directory's URL with a slash, which URLClassLoader needs to read it as a directory
        return Path.of(entry).toUri().toURL();
    }
}
