package io.hivesink.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** How many HDFS DataNodes the class's FailoverStack runs ({@link StackExtension}): a test that loses one needs 3. */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface DataNodes {
    public int value();
}
