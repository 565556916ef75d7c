package dev.cuecard.langchain4j;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Flow;

/**
 * A {@link Flow.Publisher} with demand: each subscription starts a new thread that produces the events (it asks the
 * mock, so each subscription is one request), and each event is delivered only after the subscriber requested it, on
 * the producing thread or, for an event that was waiting, on the thread that calls {@code request(n)}. Delivery is
 * serialized (rule 1.3 of Reactive Streams): one signal at a time, in order.
 */
final class EventPublisher<T> implements Flow.Publisher<T> {
    /** Produces the events into a sink; returns normally when done, throws to fail the subscription. */
    interface Producer<T> {
        void produce(Sink<T> sink) throws Throwable;
    }

    /** Where a producer puts its events; {@link #cancelled()} says when to stop. */
    interface Sink<T> {
        void next(T event);

        boolean cancelled();
    }

    private final Producer<T> producer;

    EventPublisher(Producer<T> producer) {
        this.producer = producer;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> subscriber) {
        if (subscriber == null) throw new NullPointerException("subscriber"); // rule 1.9
        Subscription<T> subscription = new Subscription<>(subscriber);
        subscriber.onSubscribe(subscription);
        Thread thread = new Thread(() -> {
            try {
                producer.produce(subscription);
                subscription.finish(null);
            } catch (Throwable error) {
                subscription.finish(error);
            }
        }, "cuecard-publisher");
        thread.setDaemon(true);
        thread.start();
    }

    private static final class Subscription<T> implements Flow.Subscription, Sink<T> {
        private final Flow.Subscriber<? super T> subscriber;
        private final Queue<T> waiting = new ArrayDeque<>();
        private long demand;
        private boolean done;
        private Throwable error;
        private boolean terminated;
        private boolean cancelled;
        private boolean draining;

        Subscription(Flow.Subscriber<? super T> subscriber) {
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            synchronized (this) {
                if (cancelled || terminated) return;
                if (n <= 0) { // rule 3.9
                    cancelled = true;
                    waiting.clear();
                    terminated = true;
                }
                demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            }
            if (n <= 0) {
                subscriber.onError(new IllegalArgumentException("request(" + n + "): demand must be positive (rule 3.9)"));
                return;
            }
            drain();
        }

        @Override
        public void cancel() {
            synchronized (this) {
                cancelled = true;
                waiting.clear();
            }
        }

        @Override
        public synchronized boolean cancelled() {
            return cancelled;
        }

        @Override
        public void next(T event) {
            synchronized (this) {
                if (cancelled || terminated) return;
                waiting.add(event);
            }
            drain();
        }

        void finish(Throwable failure) {
            synchronized (this) {
                done = true;
                error = failure;
            }
            drain();
        }

        /** Delivers what is waiting while there is demand; one thread at a time, the others leave it the work. */
        private void drain() {
            while (true) {
                T event;
                boolean complete = false;
                Throwable failure = null;
                synchronized (this) {
                    if (draining || cancelled || terminated) return;
                    if (!waiting.isEmpty() && demand > 0) {
                        event = waiting.poll();
                        demand--;
                    } else if (waiting.isEmpty() && done) {
                        event = null;
                        terminated = true;
                        complete = error == null;
                        failure = error;
                    } else {
                        return;
                    }
                    draining = true;
                }
                try {
                    if (event != null) subscriber.onNext(event);
                    else if (complete) subscriber.onComplete();
                    else subscriber.onError(failure);
                } finally {
                    synchronized (this) {
                        draining = false;
                    }
                }
                if (event == null) return;
            }
        }
    }
}
