package io.hivesink.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;

/** Aborting a discarded file's uploads, against an S3 client that answers as a store does after a lost answer. */
class MultipartMoverTest {

    @Test
    void anUploadFoundGoneDoesNotEndTheAbortsOfTheOthersOfItsKey() {
        StoreAfterALostAnswer store = new StoreAfterALostAnswer(List.of(upload("t/f.avro", "u1"),
                upload("t/f.avro.tmp", "other"), upload("t/f.avro", "u2")), "u1");

        MultipartMover.abortUploadsOf(store, "bucket", "t/f.avro");

        assertEquals(List.of("t/f.avro u1", "t/f.avro u2"), store.aborts,
                "u1 was aborted by a try whose answer was lost; u2 is aborted all the same, and no other key's");
    }

    private static MultipartUpload upload(String key, String id) {
        return MultipartUpload.builder().key(key).uploadId(id).build();
    }

    /** Lists the uploads it was given; an abort of {@code gone} answers that the upload does not exist. */
    private static final class StoreAfterALostAnswer implements S3Client {

        private final List<MultipartUpload> uploads;
        private final String gone;
        final List<String> aborts = new ArrayList<>();

        StoreAfterALostAnswer(List<MultipartUpload> uploads, String gone) {
            this.uploads = uploads;
            this.gone = gone;
        }

        @Override
        public ListMultipartUploadsResponse listMultipartUploads(ListMultipartUploadsRequest request) {
            return ListMultipartUploadsResponse.builder().bucket(request.bucket())
                    .uploads(uploads.stream().filter(u -> u.key().startsWith(request.prefix())).toList()).build();
        }

        @Override
        public AbortMultipartUploadResponse abortMultipartUpload(AbortMultipartUploadRequest request) {
            aborts.add(request.key() + " " + request.uploadId());
            if (request.uploadId().equals(gone)) {
                throw NoSuchUploadException.builder().message("The specified upload does not exist").build();
            }
            return AbortMultipartUploadResponse.builder().build();
        }

        @Override
        public String serviceName() {
            return "s3";
        }

        @Override
        public S3ServiceClientConfiguration serviceClientConfiguration() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
