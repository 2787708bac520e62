package io.hivesink.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.hivesink.stack.hive.MetastoreRelease;

/**
 * The metastore release of the class's FailoverStack ({@link StackExtension}), on its full schema (lock and
 * transaction tables included; 2.3 on DataNucleus's, as this project has no 2.3 schema script) and without
 * HiveServer2 unless {@link #withHive}; Hive 4.0.1 on DataNucleus's schema otherwise.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface OnMetastore {
    public MetastoreRelease value();

    /**
     * Also start HiveServer2: 3.1.3 on a 3.1 metastore (which then evaluates its partition filters with hive-exec,
     * {@code MetastoreProcess#HIVE_EXEC}), 4.0.1 on the others.
     */
    public boolean withHive() default false;
}
