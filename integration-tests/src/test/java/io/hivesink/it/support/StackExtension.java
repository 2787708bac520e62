package io.hivesink.it.support;

import java.nio.file.Path;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.LoggerFactory;

import io.hivesink.stack.EmbeddedStack;
import io.hivesink.stack.FailoverStack;
import io.hivesink.stack.hive.MetastoreRelease;

/**
 * Gives a test class the stack it asks for: a parameter of type {@link EmbeddedStack} (broker, Connect cluster,
 * HDFS, metastore and HiveServer2 in this JVM) or {@link FailoverStack} (broker, HDFS and metastore here, Connect
 * workers as child JVMs), in a {@code @BeforeAll} or test method. The stack is started once per class, the first time
 * it is asked for, in {@code target/it-stack/<class>}, and stopped when the class is done, whatever happened. A class
 * annotated {@link DataNodes} gets that many HDFS DataNodes in its FailoverStack (one otherwise), one annotated
 * {@link OnMetastore} that metastore release, one annotated {@link OnS3} its tables on S3.
 */
public final class StackExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(StackExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == EmbeddedStack.class || type == FailoverStack.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent()) {
            classContext = classContext.getParent().orElseThrow();
        }
        Path workDir = Path.of("target", "it-stack", classContext.getRequiredTestClass().getSimpleName());
        DataNodes dataNodes = classContext.getRequiredTestClass().getAnnotation(DataNodes.class);
        int count = dataNodes == null ? 1 : dataNodes.value();
        OnMetastore release = classContext.getRequiredTestClass().getAnnotation(OnMetastore.class);
        OnS3 onS3 = classContext.getRequiredTestClass().getAnnotation(OnS3.class);
        return classContext.getStore(NAMESPACE)
                .getOrComputeIfAbsent(type, t -> new Running(start(type, workDir, count, release, onS3)),
                        Running.class)
                .stack();
    }

    private static AutoCloseable start(Class<?> type, Path workDir, int dataNodes, OnMetastore release,
            OnS3 onS3) {
        // the classes of a fork append to one log: this line starts each class's part of it
        LoggerFactory.getLogger(StackExtension.class).info("===== Starting a {} in {}", type.getSimpleName(), workDir);
        try {
            if (type == EmbeddedStack.class) {
                return EmbeddedStack.start(workDir);
            }
            if (onS3 != null) {
                return FailoverStack.startOnS3(workDir, onS3.value() == MetastoreRelease.HIVE_4_0, onS3.value());
            }
            return release == null ? FailoverStack.start(workDir, dataNodes)
                    : FailoverStack.start(workDir, dataNodes, release.withHive(), release.value());
        } catch (Exception e) {
            throw new ParameterResolutionException("Could not start the " + type.getSimpleName() + " in " + workDir
                    + ": " + e, e);
        }
    }

    /** A started stack, closed by JUnit when the class's context closes. */
    private record Running(AutoCloseable stack) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() throws Exception {
            stack.close();
        }
    }
}
