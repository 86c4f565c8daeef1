/**
 * Bangla for the labels of the Apps, Admin users, Catalog and Webhooks
 * screens (decisions 20), beside i18n.ts's. The English text is the key and
 * the accessible name the acceptance checks drive the browser by. The
 * gateways' own field names keep their English in brackets, as the gateways'
 * panels show them.
 */
export const ADMIN_BN: Record<string, string> = {
  // Apps
  'Create app': 'অ্যাপ তৈরি করুন',
  'No app yet: create the first one. Its keys are shown once, right after.':
    'এখনও কোনো অ্যাপ নেই: প্রথমটি তৈরি করুন। এর কী ঠিক পরেই একবার দেখানো হবে।',
  'Keys of the new app': 'নতুন অ্যাপের কী',
  'Replaces the secret of this mode at once; the old one stops working.':
    'এই মোডের সিক্রেট এখনই বদলায়; পুরনোটি আর কাজ করবে না।',
  'Sandbox (TEST only, no credentials)': 'স্যান্ডবক্স (শুধু টেস্ট, ক্রেডেনশিয়াল লাগে না)',
  'Account ends in': 'অ্যাকাউন্টের শেষ অংশ',
  'Last error': 'সর্বশেষ ত্রুটি',
  'Store ID': 'স্টোর আইডি (Store ID)',
  'Store Password': 'স্টোর পাসওয়ার্ড (Store Password)',
  'App key': 'অ্যাপ কী (App key)',
  'App secret': 'অ্যাপ সিক্রেট (App secret)',
  Username: 'ইউজারনেম (Username)',
  'Merchant ID': 'মার্চেন্ট আইডি (Merchant ID)',
  'Merchant number': 'মার্চেন্ট নম্বর (Merchant number)',
  'Merchant private key': 'মার্চেন্টের প্রাইভেট কী (Merchant private key)',
  'Nagad public key': 'নগদের পাবলিক কী (Nagad public key)',
  'Default for new payments': 'নতুন পেমেন্টে ডিফল্ট',
  Set: 'সেট করা আছে',
  'Saving replaces what is stored.': 'সংরক্ষণ করলে আগেরটি বদলে যাবে।',
  'Not set.': 'সেট করা নেই।',
  'Saved: the credentials are stored sealed and are never shown again.':
    'সংরক্ষিত: তথ্যগুলো এনক্রিপ্ট করে রাখা হয়েছে, আর কখনো দেখানো হবে না।',
  Remove: 'সরান',
  Removed: 'সরানো হয়েছে',
  'SMS (SSL Wireless)': 'এসএমএস (SSL Wireless)',
  'Without them, LIVE text messages are skipped; TEST never sends. Saving replaces what is stored.':
    'এগুলো ছাড়া লাইভ এসএমএস বাদ পড়ে; টেস্ট কখনো পাঠায় না। সংরক্ষণ করলে আগেরটি বদলে যাবে।',
  'API token': 'API টোকেন',
  SID: 'এসআইডি (SID)',
  'Pay page': 'পেমেন্ট পাতা',
  'What payers see on the pay page, the receipt and messages in this mode.':
    'এই মোডে পেমেন্ট পাতা, রসিদ ও বার্তায় গ্রাহক যা দেখেন।',
  'Company name': 'প্রতিষ্ঠানের নাম',
  'Company address': 'প্রতিষ্ঠানের ঠিকানা',
  'Contact details': 'যোগাযোগের তথ্য',
  'Footer note': 'নিচের নোট',
  'Accent colour': 'প্রধান রং',
  'an amount in taka, e.g. 5000 or 5000.50': 'টাকার অঙ্ক, যেমন ৫০০০ বা ৫০০০.৫০',
  'Minimum amount (taka)': 'সর্বনিম্ন পরিমাণ (টাকা)',
  'Maximum amount (taka)': 'সর্বোচ্চ পরিমাণ (টাকা)',
  'Return URL allowlist': 'অনুমোদিত রিটার্ন URL',
  'Comma-separated origins; empty: any https URL':
    'কমা দিয়ে আলাদা করা অরিজিন; ফাঁকা থাকলে যেকোনো https URL',
  'Default success URL': 'ডিফল্ট সফল URL',
  'Default fail URL': 'ডিফল্ট ব্যর্থ URL',
  'Default cancel URL': 'ডিফল্ট বাতিল URL',
  'Suspend app': 'অ্যাপ স্থগিত করুন',
  'Reactivate app': 'অ্যাপ আবার চালু করুন',
  'Suspended: every call of the app is refused.': 'স্থগিত: অ্যাপের প্রতিটি কল প্রত্যাখ্যাত হয়।',
  'Reactivated: the app is accepted again.': 'আবার চালু: অ্যাপের কল আবার গ্রহণ করা হচ্ছে।',
  'Suspending refuses every call of the app, in both modes, until it is reactivated.':
    'স্থগিত করলে আবার চালু না করা পর্যন্ত দুই মোডেই অ্যাপের প্রতিটি কল প্রত্যাখ্যাত হয়।',
  // Admin users
  'Super admin': 'সুপার অ্যাডমিন',
  'Super admin (all permissions and apps)': 'সুপার অ্যাডমিন (সব অনুমতি ও অ্যাপ)',
  'Last sign-in': 'সর্বশেষ সাইন ইন',
  'New admin user': 'নতুন অ্যাডমিন ব্যবহারকারী',
  'Create user': 'ব্যবহারকারী তৈরি করুন',
  'At least 12 characters; give it to the user in person.':
    'অন্তত ১২ অক্ষর; ব্যবহারকারীকে সরাসরি জানিয়ে দিন।',
  'App ids (comma separated)': 'অ্যাপ আইডি (কমা দিয়ে)',
  'See apps, their settings and gateways': 'অ্যাপ, সেটিংস ও গেটওয়ে দেখা',
  'Create apps, change settings, keys and credentials':
    'অ্যাপ তৈরি, সেটিংস, কী ও ক্রেডেনশিয়াল বদলানো',
  'See admin users': 'অ্যাডমিন ব্যবহারকারী দেখা',
  'Create and change admin users': 'অ্যাডমিন ব্যবহারকারী তৈরি ও বদলানো',
  'See invoices, payments, refunds, subscriptions, customers':
    'ইনভয়েস, পেমেন্ট, রিফান্ড, সাবস্ক্রিপশন, গ্রাহক দেখা',
  'Create invoices, refund, pause and cancel subscriptions':
    'ইনভয়েস তৈরি, রিফান্ড, সাবস্ক্রিপশন বিরতি ও বাতিল',
  'Create and change products, prices and benefits': 'পণ্য, মূল্য ও সুবিধা তৈরি ও বদলানো',
  'Import settlements and run reconciliation': 'সেটেলমেন্ট ইমপোর্ট ও মিলকরণ চালানো',
  'Approve or reject refunds above the threshold': 'সীমার বেশি রিফান্ড অনুমোদন বা প্রত্যাখ্যান',
  'Manage webhook endpoints, see and re-send deliveries':
    'ওয়েবহুক এন্ডপয়েন্ট পরিচালনা, ডেলিভারি দেখা ও আবার পাঠানো',
  'Read the audit log': 'অডিট লগ পড়া',
  'Name, permissions and apps': 'নাম, অনুমতি ও অ্যাপ',
  Access: 'প্রবেশাধিকার',
  Deactivate: 'নিষ্ক্রিয় করুন',
  'Re-enable': 'আবার চালু করুন',
  'Deactivated: this user cannot sign in.': 'নিষ্ক্রিয়: এই ব্যবহারকারী সাইন ইন করতে পারবেন না।',
  'Re-enabled: the user can sign in again.': 'আবার চালু: ব্যবহারকারী আবার সাইন ইন করতে পারবেন।',
  'Deactivating signs the user out everywhere at once and stops them signing in.':
    'নিষ্ক্রিয় করলে ব্যবহারকারী সব জায়গা থেকে সঙ্গে সঙ্গে সাইন আউট হন এবং আর সাইন ইন করতে পারেন না।',
  'Set a new password': 'নতুন পাসওয়ার্ড দিন',
  'New password': 'নতুন পাসওয়ার্ড',
  'Set password': 'পাসওয়ার্ড সেট করুন',
  'Password set: the user is signed out everywhere.':
    'পাসওয়ার্ড সেট হয়েছে: ব্যবহারকারী সব জায়গা থেকে সাইন আউট হয়েছেন।',
  // Catalog
  'New product': 'নতুন পণ্য',
  'Create product': 'পণ্য তৈরি করুন',
  'A product is a draft until its first price.': 'প্রথম মূল্য না দেওয়া পর্যন্ত পণ্যটি খসড়া থাকে।',
  'New benefit': 'নতুন সুবিধা',
  'Create benefit': 'সুবিধা তৈরি করুন',
  'Lookup key': 'লুকআপ কী',
  'Unique in this mode; letters, digits and . _ : -': 'এই মোডে অনন্য; অক্ষর, অঙ্ক এবং . _ : -',
  Metadata: 'মেটাডেটা',
  'Created: activate it to have it granted.': 'তৈরি হয়েছে: দিতে চাইলে চালু করুন।',
  'Edit product': 'পণ্য সম্পাদনা',
  'Edit benefit': 'সুবিধা সম্পাদনা',
  Edit: 'সম্পাদনা',
  Price: 'মূল্য',
  'Trial days': 'ট্রায়ালের দিন',
  'New price': 'নতুন মূল্য',
  'Edit price': 'মূল্য সম্পাদনা',
  'Add price': 'মূল্য যোগ করুন',
  'Replace price': 'মূল্য বদলান',
  'Prices never change once created: saving adds this price and deactivates the old one. Subscriptions keep what they have.':
    'মূল্য তৈরি হওয়ার পর আর বদলায় না: সংরক্ষণ করলে এই মূল্য যোগ হয় এবং পুরনোটি বন্ধ হয়। সাবস্ক্রিপশনগুলো আগেরটিই রাখে।',
  'Replaced: the new price is on sale, the old one is not.':
    'বদলানো হয়েছে: নতুন মূল্যে বিক্রি চলছে, পুরনোটিতে নয়।',
  'Deactivated: it can no longer be bought; subscriptions keep it.':
    'বন্ধ করা হয়েছে: এটি আর কেনা যাবে না; সাবস্ক্রিপশনগুলো এটি রাখবে।',
  Type: 'ধরন',
  'One-time': 'এককালীন',
  Recurring: 'নিয়মিত',
  'Amount (taka)': 'পরিমাণ (টাকা)',
  'Every (count)': 'প্রতি (সংখ্যা)',
  Interval: 'সময়কাল',
  inactive: 'বন্ধ',
  Benefit: 'সুবিধা',
  'Attach a benefit': 'সুবিধা যুক্ত করুন',
  Attach: 'যুক্ত করুন',
  Attached: 'যুক্ত হয়েছে',
  Archive: 'আর্কাইভ',
  'Archive product': 'পণ্য আর্কাইভ করুন',
  'An archived product takes no new purchases or prices; subscriptions go on.':
    'আর্কাইভ করা পণ্যে নতুন কেনা বা মূল্য যোগ হয় না; সাবস্ক্রিপশন চলতে থাকে।',
  'Archived: no new purchases or prices.': 'আর্কাইভ করা: নতুন কেনা বা মূল্য নেই।',
  Activate: 'চালু করুন',
  // Webhooks
  'All events, present and future': 'সব ইভেন্ট, এখনকার ও ভবিষ্যতের',
  'Pick at least one.': 'অন্তত একটি বেছে নিন।',
  'Pick at least one event.': 'অন্তত একটি ইভেন্ট বেছে নিন।',
  'Events it receives': 'যে ইভেন্টগুলো পায়',
  'Disabled: it receives nothing until enabled again.':
    'বন্ধ করা হয়েছে: আবার চালু না করা পর্যন্ত কিছু পাবে না।',
  'Enabled: it receives events again.': 'চালু করা হয়েছে: আবার ইভেন্ট পাবে।',
  'Delivery of {event}': '{event} ইভেন্টের ডেলিভারি',
  Event: 'ইভেন্ট',
  Endpoint: 'এন্ডপয়েন্ট',
  'Delivery id': 'ডেলিভারি আইডি',
  'Next attempt': 'পরের চেষ্টা',
  Delivered: 'পৌঁছেছে',
  'Re-sent: the new attempt is listed below when it is made.':
    'আবার পাঠানো হয়েছে: নতুন চেষ্টা হলে নিচে দেখা যাবে।',
  'Waiting for the new attempt…': 'নতুন চেষ্টার অপেক্ষায়…',
  // Refund reasons
  'Pick a common reason or type your own.': 'একটি সাধারণ কারণ বেছে নিন বা নিজে লিখুন।',
  'Quick picks': 'এক ক্লিকে বাছাই',
  'Customer request': 'গ্রাহকের অনুরোধ',
  'Duplicate payment': 'দুবার পেমেন্ট',
  'Order cancelled': 'অর্ডার বাতিল',
  'Not delivered': 'পণ্য পৌঁছায়নি',
  'Damaged or defective': 'ক্ষতিগ্রস্ত বা ত্রুটিপূর্ণ',
  'Charged the wrong amount': 'ভুল পরিমাণ কাটা হয়েছে',
};
