package io.hivesink.commit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

import io.hivesink.metastore.Metastore;

/** A metastore whose calls a test watches or changes: before each is forwarded, and after it answered. */
final class Intercepted {

    /** Runs around a call: may throw in its place, or act on the metastore (break a lock, drop an answer). */
    @FunctionalInterface
    interface Hook {
        void on(String method, Object[] args) throws Throwable;
    }

    static final Hook NOTHING = (method, args) -> { };

    private Intercepted() {
    }

    static Metastore around(Metastore target, Hook before, Hook after) {
        return (Metastore) Proxy.newProxyInstance(Metastore.class.getClassLoader(), new Class<?>[] {Metastore.class},
                (proxy, method, args) -> {
                    before.on(method.getName(), args);
                    Object answer;
                    try {
                        answer = method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    after.on(method.getName(), args);
                    return answer;
                });
    }

    static Metastore before(Metastore target, Hook before) {
        return around(target, before, NOTHING);
    }

    static Metastore after(Metastore target, Hook after) {
        return around(target, NOTHING, after);
    }
}
